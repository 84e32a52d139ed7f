// The preload's earlier name, in command lines and service units written before it also held V8's
// optimizing compilers back: `--import ./src/compile-cache.js` keeps working. Use start-up.js.
import './start-up.js';
