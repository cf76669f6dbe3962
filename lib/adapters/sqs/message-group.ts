/** The FIFO message group of a work-queue key. */
import { createHash } from 'node:crypto';

/** SQS's longest `MessageGroupId`; longer keys are shortened with a hash. */
export const MAX_MESSAGE_GROUP_ID_LENGTH = 128;

/**
 * Returns the message group of `key`: the key itself when SQS allows it, or
 * its first 64 characters and a SHA-256 prefix (keys may reach 3·253
 * characters). Distinct keys sharing a group would only be serialised.
 */
export const messageGroupIdFor = (key: string): string => {
  if (key.length <= MAX_MESSAGE_GROUP_ID_LENGTH) return key;
  const hash = createHash('sha256').update(key).digest('hex');
  return `${key.slice(0, 64)}#${hash.slice(0, MAX_MESSAGE_GROUP_ID_LENGTH - 65)}`;
};
