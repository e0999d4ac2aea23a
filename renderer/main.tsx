import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createClient } from './api/client';
import { App } from './app/App';
import { WorkbenchContext } from './state/context';
import { createWindowStore } from './state/store';
// The shared stylesheets, once for every screen (after the screens' own: app.css wins).
import './styles/screens.css';
import './styles/app.css';

const client = createClient();
const store = createWindowStore(client);
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <WorkbenchContext.Provider value={{ store, client }}>
        <App />
      </WorkbenchContext.Provider>
    </StrictMode>,
  );
}
