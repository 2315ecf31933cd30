// The workbench shell. Panels (editor, charts, clients, timelines, runs) arrive with the workbench issue.
import { useEffect, useState } from 'react';
import type { AppInfo } from '../../shared/workbench-api';

export function App() {
  const [info] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const api = window.workbenchIpc;
    if (!api) {
      setError('No workbench API: open this page from the desktop app or `agentjet ui`.');
      return;
    }
    void api; setError('The workbench panels are being built.');
  }, []);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 24 }}>
      <h1>AgentJet Workbench</h1>
      {info && <p>{info.name} {info.version} on {info.platform} via {info.transport}</p>}
      {error && <p role="alert">{error}</p>}
    </main>
  );
}
