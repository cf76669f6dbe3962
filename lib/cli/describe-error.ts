/**
 * How the CLIs talk about failures: an error with its causes in one line,
 * and a deadline on a probe.
 */

/** Returns an error's message followed by those of its causes. */
export const describeError = (e: unknown): string => {
  const parts: string[] = [];
  let current: unknown = e;
  for (let depth = 0; current !== undefined && depth < 4; depth++) {
    const text = current instanceof Error ? current.message : String(current);
    if (!parts.some((p) => p.includes(text))) parts.push(text);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
};

/** A request outlived the check's timeout. */
export class CheckTimeout extends Error {}

/** Returns `work`, or rejects with CheckTimeout after `ms` (calling `onTimeout`). */
export const withTimeout = async <T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => void
): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new CheckTimeout());
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
};
