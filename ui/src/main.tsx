// Browser entry point: builds the same-origin PocketBase transport and mounts the App.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { installAccent } from './lib/accent';
import { PocketBaseTransport } from './transport/pocketbase';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html is missing #root');

installAccent();
const transport = new PocketBaseTransport({ origin: window.location.origin });

createRoot(root).render(
  <StrictMode>
    <App transport={transport} search={window.location.search} />
  </StrictMode>,
);
