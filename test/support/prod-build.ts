// A production build laid out as a package in a temporary folder: `npm run build`'s compiler run
// into the folder's dist/, with the repo's package.json and node_modules beside it, so a test
// can run `npm run start:prod` exactly as a deploy does without needing the repo's own dist/.
import { spawn } from "node:child_process";
import { copyFile, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ProdBuild {
  /** The package folder: run `npm run start:prod` here. */
  readonly path: string;
  remove(): Promise<void>;
}

export async function buildForProd(): Promise<ProdBuild> {
  const path = await mkdtemp(join(tmpdir(), "bot-prod-"));
  const remove = () => rm(path, { recursive: true, force: true });
  try {
    await compile(join(path, "dist"));
    await copyFile("package.json", join(path, "package.json"));
    await symlink(join(process.cwd(), "node_modules"), join(path, "node_modules"), "dir");
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}

function compile(outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tsc = spawn(join("node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json", "--outDir", outDir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    tsc.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    tsc.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    tsc.once("error", reject);
    tsc.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the production build failed (exit ${code}):\n${output}`))));
  });
}
