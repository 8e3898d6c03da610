import { answer, api, ApiError } from './api/client';
import type { Group } from './api/types';
import { chunks } from './macs';

/**
 * Adds (or removes) macs in requests of at most 500 (the API's body limit), reporting how many
 * are done. On a refusal (a mac that is not a hardware address: the server names it) the
 * requests already made stay made; the error says how far it got.
 */
export async function changeMembers(
  tenant: string,
  group: string,
  macs: string[],
  change: 'add' | 'remove',
  onProgress: (done: number) => void,
): Promise<Group | undefined> {
  let done = 0;
  let last: Group | undefined;
  for (const part of chunks(macs)) {
    try {
      const request = { params: { path: { tenant, group } }, body: { macs: part } };
      last = await answer(
        change === 'remove'
          ? api.POST('/tenants/{tenant}/groups/{group}/members/remove', request)
          : api.POST('/tenants/{tenant}/groups/{group}/members', request),
      );
    } catch (error) {
      if (error instanceof ApiError && done > 0) {
        throw new ApiError(
          error.status,
          `${error.message}. The first ${done.toLocaleString('en')} macs were ${change === 'add' ? 'added' : 'removed'}; none after.`,
          error.field,
        );
      }
      throw error;
    }
    done += part.length;
    onProgress(done);
  }
  return last;
}
