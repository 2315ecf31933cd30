// `agentjet campaign` help text (kept apart so `agentjet --help` loads no campaign code).
export const campaignHelp = `agentjet campaign run FILE [--data-dir DIR]   run a campaign (YAML or JSON; docs/campaigns.md),
                             or resume it where it stopped; progress per trial, then a summary table;
                             the report is <data>/campaigns/<name>/report.html and report.md
  agentjet campaign run STUDY.yaml [--scale X]   a study (kind: study; docs/studies.md): fixed arms × seeds,
                             the same budget each, a report with mean ± SE, verdicts and power;
                             --scale multiplies every trial's budget (minutes, updates, episodes)
  agentjet campaign status [FILE|NAME|DIR] [--data-dir DIR]   a campaign's trials, or all campaigns
  --data-dir DIR             the data folder (default $AGENTJET_HOME or ~/.agentjet)`;
