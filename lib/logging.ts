/** Small helpers over the Logger port. */
import type { Logger } from './ports/index.js';

/** Returns a logger that adds `fields` to every line. */
export const withFields = (
  logger: Logger,
  fields: Record<string, unknown>
): Logger => ({
  debug: (m, f) => logger.debug(m, { ...fields, ...f }),
  info: (m, f) => logger.info(m, { ...fields, ...f }),
  warn: (m, f) => logger.warn(m, { ...fields, ...f }),
  error: (m, f) => logger.error(m, { ...fields, ...f }),
});
