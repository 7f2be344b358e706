// The dashboard's templates and assets are not TypeScript: `npm run build` copies them beside
// the compiled code (dist/dashboard/), where the server looks for them.
import { cpSync, rmSync } from "node:fs";

for (const folder of ["views", "assets"]) {
  rmSync(`dist/dashboard/${folder}`, { recursive: true, force: true });
  cpSync(`src/dashboard/${folder}`, `dist/dashboard/${folder}`, { recursive: true });
}
