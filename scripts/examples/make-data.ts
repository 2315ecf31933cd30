// Writes the example tasks' datasets (resources/examples/<task>/data/{train,eval}.jsonl) from
// their deterministic generators. Usage: tsx scripts/examples/make-data.ts
import { writeFileSync } from 'node:fs';
import { SPLITS } from '../../src/shared/task';
import { calculatorExample, dataPath, guessNumberExample, toJsonl, type Example } from '../../resources/examples/index';

function write<T>(example: Example<T>): void {
  for (const split of SPLITS) {
    const tasks = example.generate(split, example.sizes[split]);
    writeFileSync(dataPath(example.name, split), toJsonl(tasks));
    console.log(`${example.name} ${split}: ${tasks.length} tasks`);
  }
}

write(calculatorExample);
write(guessNumberExample);
