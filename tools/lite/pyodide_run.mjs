// Run a Python script in Pyodide under Node: `node pyodide_run.mjs PYODIDE_DIR SCRIPT ARG...`.
// Each absolute path among SCRIPT and the ARGs (and so each folder a path names) is the host's
// own, mounted at the same place, so the script reads and writes this machine's files.
// tools/lite/environment.py runs compile_wheels.py this way: bytecode of Pyodide's Python.
import { dirname, isAbsolute, resolve } from "node:path";
import { existsSync, statSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, script, ...args] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/" });

const mounted = new Set();
for (const path of [script, ...args].filter(isAbsolute)) {
  const folder = existsSync(path) && statSync(path).isDirectory() ? path : dirname(path);
  if (mounted.has(folder)) continue;
  mounted.add(folder);
  pyodide.FS.mkdirTree(folder);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: folder }, folder);
}
pyodide.globals.set("argv", pyodide.toPy([script, ...args]));
await pyodide.runPythonAsync(`
import runpy, sys
sys.argv = list(argv)
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as stop:
    if stop.code not in (None, 0):
        raise
`);
