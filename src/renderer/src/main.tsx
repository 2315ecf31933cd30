// Renderer entry: picks the transport (Electron IPC or the WebSocket bridge), creates the store and
// mounts the React app. Created once here, outside React, so StrictMode's double effects never open
// a second socket.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { openWorkbenchConnection } from './api/connection';
import { createAppStore, pushToast } from './store/store';
import './styles.css';

const store = createAppStore();
const connection = openWorkbenchConnection((message) => pushToast(store, message));
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App store={store} connection={connection} />
    </StrictMode>,
  );
}
