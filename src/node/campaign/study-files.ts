// Which kind of file `agentjet campaign run FILE` (and the Campaigns panel) was given: a campaign
// (an Optuna search) or a study (`kind: study`: fixed arms × seeds, docs/studies.md).
import { dirname } from 'node:path';
import { isStudyDoc, parseStudy, scaleStudy, withSeeds, type StudySpec } from '../../shared/campaign/study-spec';
import { CampaignFileError, loadCampaignFile, readRunDoc, type LoadedCampaign } from './campaign-files';

export interface LoadedStudy {
  spec: StudySpec;
  baseDir: string;
  file: string;
}

export type LoadedRun = ({ kind: 'campaign' } & LoadedCampaign) | ({ kind: 'study' } & LoadedStudy);

/** `--scale` multiplies a study's budget; `--seeds` sets every arm's seeds. */
export interface StudyOverrides {
  scale?: number;
  seeds?: number;
}

/** A study file, with the overrides applied (none: as written). */
export function loadStudyFile(file: string, o: StudyOverrides = {}, env: NodeJS.ProcessEnv = process.env): LoadedStudy {
  const { path, doc } = readRunDoc(file, env);
  const parsed = parseStudy(doc);
  if (!parsed.ok) throw new CampaignFileError(path, parsed.errors);
  const scaled = scaleStudy(parsed.spec, o.scale ?? 1);
  return { spec: o.seeds === undefined ? scaled : withSeeds(scaled, o.seeds), baseDir: dirname(path), file: path };
}

export function loadRunFile(file: string, o: StudyOverrides = {}, env: NodeJS.ProcessEnv = process.env): LoadedRun {
  const { doc } = readRunDoc(file, env);
  if (isStudyDoc(doc)) return { kind: 'study', ...loadStudyFile(file, o, env) };
  if (o.scale !== undefined || o.seeds !== undefined)
    throw new Error('--scale and --seeds apply to study files (kind: study) only');
  return { kind: 'campaign', ...loadCampaignFile(file, env) };
}
