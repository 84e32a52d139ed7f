import { writeFileSync } from 'node:fs';
import { renderConfigDocs } from '../src/config/docs.ts';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigDocs());
console.log('wrote docs/configuration.md');
