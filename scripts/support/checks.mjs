// Runs npm scripts side by side and fails if any fails: `npm test` uses it for the build, the lint and
// the format check, which need nothing of each other (the build type-checks every file). Plain
// JavaScript, since the build is one of the scripts it runs. Each script's output is shown when it ends.
import { spawn } from "node:child_process";

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write("usage: node scripts/support/checks.mjs SCRIPT...\n");
  process.exit(2);
}

/** Runs `npm run SCRIPT` with npm's own entry point when npm started this, and resolves to its exit code. */
const run = (script) =>
  new Promise((resolve) => {
    const started = Date.now();
    const npm = process.env.npm_execpath;
    const child =
      npm === undefined
        ? spawn("npm", ["run", "-s", script], { stdio: ["ignore", "pipe", "pipe"] })
        : spawn(process.execPath, [npm, "run", "-s", script], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => (output += `${error.message}\n`));
    child.on("close", (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`${code === 0 ? "ok" : "FAILED"}: npm run ${script} (${seconds} s)\n${output}`);
      resolve(code ?? 1);
    });
  });

const codes = await Promise.all(scripts.map(run));
const failed = scripts.filter((_, i) => codes[i] !== 0);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(", ")}\n`);
  process.exit(1);
}
