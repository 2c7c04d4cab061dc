// The clean-up's bound on each of its page calls: the clean-up never fails a render (spec §4.1
// rule 3 is best effort within the render budget), so a call that does not finish in time gives
// way to a fallback and the page is captured as it is.
export function withTimeout<T, F>(p: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<F>((resolve) => {
      timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
    }),
  ]);
}
