/**
 * Returns the path of a file that ships with the test bed (scripts, stage
 * definitions). A bundled program (`npm start`) sets DSR_TESTBED_DIR because
 * its own location is not the test bed's.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const testbedFile = (...parts: string[]): string =>
  path.join(
    process.env.DSR_TESTBED_DIR ?? path.dirname(fileURLToPath(import.meta.url)),
    ...parts
  );
