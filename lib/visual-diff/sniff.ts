// Which picture format bytes are, from their magic bytes (never from what a sender says).
export type ImageType = 'png' | 'jpeg' | 'webp';

/** The image type from the magic bytes, or null when the bytes are not PNG, JPEG or WebP. */
export function sniffType(body: Uint8Array): ImageType | null {
  if (
    body.length >= 8 &&
    body[0] === 0x89 &&
    body[1] === 0x50 &&
    body[2] === 0x4e &&
    body[3] === 0x47 &&
    body[4] === 0x0d &&
    body[5] === 0x0a &&
    body[6] === 0x1a &&
    body[7] === 0x0a
  )
    return 'png';
  if (body.length >= 3 && body[0] === 0xff && body[1] === 0xd8 && body[2] === 0xff) return 'jpeg';
  if (body.length >= 12 && Buffer.from(body.subarray(0, 4)).toString('latin1') === 'RIFF' && Buffer.from(body.subarray(8, 12)).toString('latin1') === 'WEBP')
    return 'webp';
  return null;
}
