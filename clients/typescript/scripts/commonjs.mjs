// Marks dist/cjs as CommonJS: the package is "type": "module", so without this node would read
// the CommonJS build (tsconfig.cjs.json) as ES modules. Run by `npm run build`.
import { writeFileSync } from "node:fs";

writeFileSync(new URL("../dist/cjs/package.json", import.meta.url), '{ "type": "commonjs" }\n');
