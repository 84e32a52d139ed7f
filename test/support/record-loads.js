// Preloaded into a Kiln under test (NODE_OPTIONS=--import …): appends the URL of every module the
// process loads to the file named by KILN_TEST_LOADS, and on SIGUSR2 writes Node's own list of the
// built-in modules it has loaded so far next to it (`….builtins`). JavaScript, because it runs
// before Node could strip any types.
import { appendFileSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.KILN_TEST_LOADS;
if (out) {
  registerHooks({
    load(url, context, next) {
      appendFileSync(out, `${url}\n`);
      return next(url, context);
    },
  });
  process.on('SIGUSR2', () => writeFileSync(`${out}.builtins`, process.moduleLoadList.join('\n')));
}
