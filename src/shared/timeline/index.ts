// Timeline merging (DESIGN §5, issue 3): recorded LLM calls in, training samples out — linear
// chains and prefix trees — with merge statistics. Pure: no I/O, no clock.
//
// Map: `types` (schemas), `chains` (which calls extend which), `linear-sample` (token masking and
// text-level splicing), `tree-pack` (prefix trees, `packGroup`), `tree-utils` (attention mask,
// unpacking, weights, advantages), `stats`, `merge` (`mergeTimelines`, loss-exactness notes).
export * from './types';
export { mergeTimelines, compareCalls, groupByEpisode, type MergeResult } from './merge';
export { buildChains, type Chains } from './chains';
export {
  buildTextSample,
  buildTokenSample,
  generationPromptSpan,
  outputBody,
  spansByMessage,
  MAX_TRAILER_TOKENS,
} from './linear-sample';
export { packGroup, TreePacker } from './tree-pack';
export {
  sampleParents,
  sampleWeights,
  tokenAdvantages,
  treeAttentionAncestors,
  treeSubtreeEnds,
  unpackTree,
  type UnpackedSequence,
} from './tree-utils';
export { computeStats, emptyStats, sumStats } from './stats';
export { argumentsKey, canonicalJson, messageKey, messagesEqual, toolsKey } from './message-key';
export { isPreorderTree } from './validate';
