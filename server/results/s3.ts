// Results in an S3-compatible bucket (AWS S3, MinIO, R2, Ceph...) through the AWS SDK: path-style
// addressing (most S3-compatible servers need it) and checksums only where the API requires
// them (the SDK's newer default checksums are refused by several S3-compatible servers).
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ResultsConfig } from '../config.ts';
import type { ResultStore } from './store.ts';

export function s3Results(config: Extract<ResultsConfig, { kind: 's3' }>): ResultStore {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(config.accessKeyId && config.secretAccessKey ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } } : {}),
  });
  const Bucket = config.bucket;
  const keyOf = (key: string) => `${config.prefix}${key}`;
  return {
    kind: 's3',
    async put(key, { body, contentType }) {
      await client.send(new PutObjectCommand({ Bucket, Key: keyOf(key), Body: body, ContentType: contentType }));
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
        const bytes = await out.Body!.transformToByteArray();
        return { body: Buffer.from(bytes), contentType: out.ContentType ?? 'application/octet-stream' };
      } catch (e) {
        if (e instanceof NoSuchKey || (e as { name?: string }).name === 'NoSuchKey') return undefined;
        throw e;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
    close: async () => client.destroy(),
  };
}
