// Dark (default) or light theme: a class on <html>, remembered in localStorage.
export type Theme = 'dark' | 'light';

const KEY = 'agentjet.theme';

export function readTheme(storage: Pick<Storage, 'getItem'>): Theme {
  return storage.getItem(KEY) === 'light' ? 'light' : 'dark';
}

export function applyTheme(theme: Theme, root: HTMLElement, storage: Pick<Storage, 'setItem'>): void {
  root.classList.toggle('theme-dark', theme === 'dark');
  root.classList.toggle('theme-light', theme === 'light');
  storage.setItem(KEY, theme);
}
