// Vite's `?raw` imports (a file's text), used by tests that check what the editor does with real sources.
declare module '*?raw' {
  const text: string;
  export default text;
}
