// Which kind of file `agentjet campaign run FILE` (and the Campaigns panel) was given: a campaign
// (an Optuna search) or a study (`kind: study`: fixed arms × seeds, docs/studies.md).
import { dirname } from 'node:path';
import { isStudyDoc, parseStudy, scaleStudy, type StudySpec } from '../../shared/campaign/study-spec';
import { CampaignFileError, loadCampaignFile, readRunDoc, type LoadedCampaign } from './campaign-files';

export interface LoadedStudy {
  spec: StudySpec;
  baseDir: string;
  file: string;
}

export type LoadedRun = ({ kind: 'campaign' } & LoadedCampaign) | ({ kind: 'study' } & LoadedStudy);

/** A study file, its budget times `scale` (1: as written). */
export function loadStudyFile(file: string, scale = 1, env: NodeJS.ProcessEnv = process.env): LoadedStudy {
  const { path, doc } = readRunDoc(file, env);
  const parsed = parseStudy(doc);
  if (!parsed.ok) throw new CampaignFileError(path, parsed.errors);
  return { spec: scaleStudy(parsed.spec, scale), baseDir: dirname(path), file: path };
}

export function loadRunFile(file: string, scale = 1, env: NodeJS.ProcessEnv = process.env): LoadedRun {
  const { doc } = readRunDoc(file, env);
  if (isStudyDoc(doc)) return { kind: 'study', ...loadStudyFile(file, scale, env) };
  if (scale !== 1) throw new Error('--scale applies to study files (kind: study) only');
  return { kind: 'campaign', ...loadCampaignFile(file, env) };
}
