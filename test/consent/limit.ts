/** Runs `jobs` with at most `n` at once; rejects with the first failure once all have settled. */
export async function mapLimit(jobs: Array<() => Promise<void>>, n: number): Promise<void> {
  const queue = [...jobs];
  const errors: unknown[] = [];
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await job().catch((e: unknown) => void errors.push(e));
  };
  await Promise.all(Array.from({ length: n }, worker));
  if (errors.length) throw errors[0];
}
