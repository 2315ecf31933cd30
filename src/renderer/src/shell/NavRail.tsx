// The left nav rail: one button per panel (Ctrl/Cmd+1…9 switch too).
import { useEffect, useState } from 'react';
import { Icon } from '../components/Icon';
import { PANELS, type PanelId } from './panels';
import { applyTheme, readTheme, type Theme } from './theme';

export function NavRail({
  active,
  onSelect,
  badges,
}: {
  active: PanelId;
  onSelect: (p: PanelId) => void;
  badges: Partial<Record<PanelId, string>>;
}) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
      const p = PANELS.find((x) => x.key === e.key);
      if (p) {
        e.preventDefault();
        onSelect(p.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onSelect]);
  const [theme, setTheme] = useState<Theme>(() => readTheme(window.localStorage));
  useEffect(() => applyTheme(theme, document.documentElement, window.localStorage), [theme]);
  return (
    <nav className="rail" aria-label="Panels">
      <div className="rail-logo" title="AgentJet Workbench">
        AJ
      </div>
      {PANELS.map((p) => (
        <button
          key={p.id}
          type="button"
          className={`rail-btn${p.id === active ? ' active' : ''}`}
          data-testid={`nav-${p.id}`}
          aria-current={p.id === active ? 'page' : undefined}
          title={`${p.label} (Ctrl+${p.key})`}
          onClick={() => onSelect(p.id)}
        >
          <Icon name={p.icon} />
          <span className="rail-label">{p.label}</span>
          {badges[p.id] ? <span className="rail-badge">{badges[p.id]}</span> : null}
        </button>
      ))}
      <span className="rail-spacer" />
      <button
        type="button"
        className="rail-btn rail-theme"
        data-testid="theme-toggle"
        title={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`}
        onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
      >
        <span aria-hidden="true">{theme === 'dark' ? '☾' : '☀'}</span>
        <span className="rail-label">Theme</span>
      </button>
    </nav>
  );
}
