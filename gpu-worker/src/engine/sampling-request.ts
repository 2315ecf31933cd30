// What one generation asks of the engine (through the admission gate): the prompt's token ids and
// the sampling settings.

export interface SamplingRequest {
  promptIds: number[];
  maxTokens: number;
  temperature: number;
  topP: number;
  seed: number;
  /** Token ids that end the output (the tokenizer's end-of-turn ids by default). */
  stopIds?: number[];
  /** Stop strings (OpenAI `stop`), applied by the engine: output ends at the first one, which is not returned. */
  stop?: readonly string[];
  /** Routing key (rollout replicas): calls with the same key go to the same replica while it is healthy. */
  affinity?: string;
}
