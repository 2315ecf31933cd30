// The editor's IntelliSense covers the reward-model scorer: every package the SDK's scorer sources import
// (a static, type-only or dynamic import) gets an ambient declaration, so the read-only SDK files the
// editor loads type-check and the scorer's own types (declared in the SDK) reach the user's reward code.
import { describe, expect, it } from 'vitest';
import bounded from '../../../../sdk/bounded-template.ts?raw';
import client from '../../../../../resources/examples/calculator-rm/client.ts?raw';
import folder from '../../../../sdk/reward-model-folder.ts?raw';
import text from '../../../../sdk/reward-model-text.ts?raw';
import scorer from '../../../../sdk/reward-model.ts?raw';
import { ambientDeclarations, importSpecifiers } from '../editor/editor-model';

const files = [scorer, text, bounded, folder, client].map((content) => ({ content }));

describe('editor declarations for the reward-model scorer', () => {
  it('declares every package the scorer imports, including the dynamically imported onnxruntime-node', () => {
    expect(files.every((f) => f.content.length > 100)).toBe(true);
    const specs = files.flatMap((f) => importSpecifiers(f.content));
    expect(specs).toEqual(
      expect.arrayContaining(['onnxruntime-node', '@huggingface/jinja', '@huggingface/tokenizers', 'openai']),
    );
    const d = ambientDeclarations(files);
    for (const pkg of ['onnxruntime-node', '@huggingface/jinja', '@huggingface/tokenizers'])
      expect(d).toContain(`declare module ${JSON.stringify(pkg)};`);
    // The scorer's public types are the SDK's own, not a package's: the editor resolves them from its files.
    expect(scorer).toMatch(/export class RewardModel/);
    expect(client).toContain("from '../../../src/sdk/index'");
  });
});
