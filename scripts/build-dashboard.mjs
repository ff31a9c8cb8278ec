// Build step of the dashboard's page (after tsc): bundle src/dashboard/web/main.tsx into
// dist/dashboard/web/app.js and copy its stylesheet, with the compiled bundler of the server.
import { copyFile, mkdir } from 'node:fs/promises';
import { buildBundle } from '../dist/dashboard/bundle.js';

await mkdir('dist/dashboard/web', { recursive: true });
await buildBundle({ entry: 'src/dashboard/web/main.tsx', outFile: 'dist/dashboard/web/app.js' });
await copyFile('src/dashboard/web/styles.css', 'dist/dashboard/web/styles.css');
