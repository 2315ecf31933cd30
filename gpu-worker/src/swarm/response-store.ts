// The conversations behind Responses API answers, kept per open episode so a later request of the
// same episode can continue one with `previous_response_id`. A conversation is everything the
// response saw and said except its `instructions` (which, as in OpenAI's API, do not carry over).
// Bounded: at most `maxPerEpisode` responses per episode (the oldest go first); an episode's
// entries are dropped when it finishes. Conversations share their message objects, so keeping
// every turn of a long episode costs pointers, not copies.
import type { ChatMessage } from '../../../src/shared/chat';

export class ResponseStore {
  private readonly byEpisode = new Map<string, Map<string, readonly ChatMessage[]>>();

  constructor(private readonly maxPerEpisode = 512) {}

  put(episodeId: string, responseId: string, conversation: readonly ChatMessage[]): void {
    let m = this.byEpisode.get(episodeId);
    if (!m) this.byEpisode.set(episodeId, (m = new Map()));
    m.set(responseId, conversation);
    while (m.size > this.maxPerEpisode) m.delete(m.keys().next().value!);
  }

  /** The conversation of `responseId` if it was answered within `episodeId`. */
  get(episodeId: string, responseId: string): readonly ChatMessage[] | undefined {
    return this.byEpisode.get(episodeId)?.get(responseId);
  }

  dropEpisode(episodeId: string): void {
    this.byEpisode.delete(episodeId);
  }

  get episodes(): number {
    return this.byEpisode.size;
  }
}
