// The option declarations and what is derived from them: defaults, schemas, flags (text read as
// typed values, ranges enforced, presets), help lines and the connect form's fields.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  flagShape,
  formFields,
  fromFlags,
  helpLines,
  TRAINING_DEFAULTS,
  TRAINING_OPTIONS,
  TrainingConfigPatchSchema,
  TrainingConfigSchema,
  WORKER_OPTIONS,
  WorkerConfigPatchSchema,
} from './index';

describe('option declarations', () => {
  it('derive a training config whose every field defaults to the declared default', () => {
    expect(TrainingConfigSchema.parse({})).toEqual(TRAINING_DEFAULTS);
    expect(Object.keys(TRAINING_DEFAULTS).sort()).toEqual(Object.keys(TRAINING_OPTIONS).sort());
    expect(TrainingConfigSchema.parse({ batch: 3 })).toEqual({ ...TRAINING_DEFAULTS, batch: 3 });
    expect(TrainingConfigSchema.safeParse({ batch: 0 }).success).toBe(false);
    expect(TrainingConfigPatchSchema.safeParse({ bogus: 1 }).success).toBe(false);
    expect(TrainingConfigPatchSchema.parse({ lr: 1e-5 })).toEqual({ lr: 1e-5 });
  });

  it('give every flag once across both tables, and a flag to every form field', () => {
    const flags = [...Object.values(TRAINING_OPTIONS), ...Object.values(WORKER_OPTIONS)].flatMap((o) =>
      'flag' in o && o.flag ? [o.flag] : [],
    );
    expect(new Set(flags).size).toBe(flags.length);
    for (const f of formFields(TRAINING_OPTIONS)) expect(flags).toContain(f.testId.replace(/^connect-/, ''));
  });

  it('read flag text as typed values within the declared ranges, with presets for what is left out', () => {
    const schema = z
      .object({ ...flagShape(TRAINING_OPTIONS), ...flagShape(WORKER_OPTIONS, ['port', 'threads'], { port: 0 }) })
      .strict();
    const parsed = schema.parse({
      batch: '4',
      lr: '3e-5',
      forceTrainSampling: 'false',
      strategy: 'C3',
      maxTokens: '64',
    });
    expect(parsed).toMatchObject({
      batch: 4,
      lr: 3e-5,
      forceTrainSampling: false,
      strategy: 'C3',
      maxTokens: 64,
      port: 0,
    });
    expect(parsed.threads).toBeUndefined();
    for (const bad of [
      { batch: '1.5' },
      { batch: 'x' },
      { lr: '2' },
      { strategy: 'C9' },
      { forceTrainSampling: 'yes' },
      { modelName: 'x' },
    ]) {
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    // Flag names map back to the config's keys.
    expect(fromFlags(TRAINING_OPTIONS, parsed)).toMatchObject({ defaultMaxTokens: 64, forceTrainSampling: false });
    expect(
      WorkerConfigPatchSchema.parse({
        ...fromFlags(WORKER_OPTIONS, parsed, ['port']),
        training: fromFlags(TRAINING_OPTIONS, parsed),
      }),
    ).toMatchObject({ port: 0, training: { batch: 4, defaultMaxTokens: 64 } });
  });

  it('write one help line per flag with its default or the command preset', () => {
    const lines = helpLines(TRAINING_OPTIONS, { keys: ['lr', 'groupSize'], presets: { groupSize: 8 } });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ {2}--group-size G +.*\(default 8\)$/);
    expect(lines[1]).toMatch(/^ {2}--lr LR +.*\(default 1e-4\)$/);
    expect(helpLines(WORKER_OPTIONS, { keys: ['threads'] })[0]).toMatch(/\(default torch decides\)$/);
  });

  it('give the connect form its fields with labels, kinds and enum choices', () => {
    const fields = formFields(TRAINING_OPTIONS);
    expect(fields.map((f) => f.name)).toEqual([
      'strategy',
      'batch',
      'groupSize',
      'lr',
      'maxTokens',
      'stalenessBound',
      'correction',
    ]);
    expect(fields.find((f) => f.name === 'strategy')?.choices.map((c) => c.value)).toEqual([
      'C1',
      'C2',
      'C3',
      'C4',
      'C5',
    ]);
    expect(fields.find((f) => f.name === 'maxTokens')).toMatchObject({
      key: 'defaultMaxTokens',
      testId: 'connect-max-tokens',
      kind: 'int',
      defaultText: '256',
    });
  });
});
