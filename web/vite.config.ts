import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { precompressPlugin } from './scripts/precompress.ts';
import { contractShapesPlugin } from './scripts/contractShapes.ts';

/** Modules of the public pages, bundled together (see `codeSplitting` below). */
const PUBLIC_MODULES = new RegExp(
  [
    String.raw`[\\/]web[\\/]src[\\/]routes[\\/]public[\\/]`,
    String.raw`[\\/]web[\\/]src[\\/]components[\\/](AuthCard|Brand|Captcha|EmptyState|Field|FormError|LoginForm|PlanCard|PublicLayoutShell|Spinner|SupportLink|ui)\.`,
    String.raw`[\\/]web[\\/]src[\\/]lib[\\/](format|title|year)\.`,
    String.raw`[\\/]web[\\/]src[\\/]i18n[\\/]es\.ts`,
    String.raw`[\\/]web[\\/]src[\\/]api[\\/](http|session)\.`,
    String.raw`[\\/]packages[\\/]contracts[\\/]src[\\/](messages|validity|limits)\.`,
  ].join('|'),
);

/** The control plane the dev server forwards API, websocket and runtime-config requests to. */
const backend = process.env.VITE_BACKEND_URL ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react(), tailwindcss(), precompressPlugin(), contractShapesPlugin()],
  server: {
    proxy: {
      '/api': { target: backend, changeOrigin: true },
      '/ws': { target: backend.replace(/^http/, 'ws'), ws: true, changeOrigin: true },
      '/config.json': { target: backend, changeOrigin: true },
    },
  },
  preview: {
    proxy: {
      '/api': { target: backend, changeOrigin: true },
      '/ws': { target: backend.replace(/^http/, 'ws'), ws: true, changeOrigin: true },
      '/config.json': { target: backend, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // Which chunks each page needs: the pre-render lists them as modulepreloads (scripts/prerender.ts).
    manifest: true,
    rolldownOptions: {
      // The app, and the one script of a pre-rendered public page, which loads the app when the
      // visitor starts using the page (src/boot.ts, scripts/prerender.ts), with /login's own second
      // script (src/bootLogin.ts: its early login and warm-up); and the first script of
      // the dashboard's documents, which asks for the page's chunks and data at once (src/shellBoot.ts).
      input: {
        index: 'index.html',
        boot: 'src/boot.ts',
        bootLogin: 'src/bootLogin.ts',
        shellBoot: 'src/shellBoot.ts',
      },
      output: {
        // React, the router and TanStack Query change less often than the app: one long-lived chunk
        // every page needs.
        // Other libraries stay with the pages that use them (Radix dialogs, the QR encoder, altcha…),
        // so a public page downloads only what it renders.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            // The router and TanStack Query apart from React (issue 28): /login warms React up
            // before the customer sends the form, within its 100 KiB (src/boot.ts), and the rest after.
            { name: 'router', test: /node_modules[\\/](react-router|@tanstack)[\\/]/ },
            // Icons are a few hundred bytes each; one chunk of all of them costs fewer round trips
            // (300 ms each on the target network) than a dozen tiny ones.
            { name: 'icons', test: /node_modules[\\/]lucide-react[\\/]/ },
            // The public pages and the small modules they share, as one chunk: /plans used to fetch
            // fifteen files, nine of them under 1.1 KiB. On HTTP/1.1 a browser opens six connections,
            // so every further six files cost another 300 ms round trip; the other public pages' code
            // that comes along is ~7 KiB compressed (under 0.1 s at 750 kbit/s), and the dashboard
            // needs most of this chunk anyway (and has it cached from /login).
            { name: 'public', test: PUBLIC_MODULES },
          ],
        },
      },
    },
  },
});
