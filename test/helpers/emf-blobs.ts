/** Captures the EMF blobs (Powertools metrics) written to stdout. */
import { vi } from 'vitest';

/** Returns the EMF blobs written to stdout while `act` runs. */
export const emfBlobsOf = <T = Record<string, unknown>>(
  act: () => void
): T[] => {
  const lines: string[] = [];
  const spy = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  try {
    act();
  } finally {
    spy.mockRestore();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as T);
};
