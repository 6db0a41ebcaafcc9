/**
 * `work`'s outcome when it settles within `ms`; otherwise what `late()` returns, or throws,
 * at the deadline. The timer is cleared either way, and a rejection of `work` after the
 * deadline is dropped (nobody is waiting for it any more): never an unhandled rejection.
 */
export async function settleWithin<T, L>(
  work: Promise<T>,
  ms: number,
  late: () => L,
): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined);
  const deadline = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
