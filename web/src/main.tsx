import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { ApiError } from './api/client';
import { App } from './app';
import { SessionProvider } from './session';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused or missing thing stays refused: only network failures and 5xx are retried, once.
      retry: (failures, error) => failures < 1 && (!(error instanceof ApiError) || error.status === 0 || error.status >= 500),
      staleTime: 5_000,
      refetchOnWindowFocus: true,
    },
  },
});

/** The operator base URL's path (`/` or `/ops/`), from the `<base href>` the server puts in the page. */
const basename = new URL(document.baseURI).pathname.replace(/\/$/, '');

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <BrowserRouter basename={basename}>
        <SessionProvider>
          <App />
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
