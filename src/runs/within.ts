// A bound on waiting: shutdown paths wait for work to reach a safe point, but never forever.

/** True when `work` settles (either way) within `ms`, false when the time runs out first. Never rejects. */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = work.then(
    () => true as const,
    () => true as const,
  );
  const finished = await Promise.race([settled, timeout]);
  clearTimeout(timer);
  return finished;
}
