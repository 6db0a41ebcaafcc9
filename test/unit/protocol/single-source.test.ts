// The shared protocol (protocol/, `@awp/protocol`) is the one place that names what crosses
// a process or package boundary: no other source file spells one of its LiveKit topics,
// attributes, remote-call names or application topics, nor the envelope limit, as a literal
// of its own. The compiled service and both SDK packages carry the protocol inside their
// dist/ (the SDKs are installed as one package), so none of them imports it by name.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { files, protocolCopies, protocolNames, ROOT } from '../../../scripts/protocol-copies.ts';

describe('the shared protocol is the single source', () => {
  it('names every topic, attribute and remote call that other code uses', () => {
    const names = protocolNames();
    expect(names).toEqual(
      expect.arrayContaining([
        'lk.transcription',
        'awp.transcript',
        'awp.ptt.start',
        'awp.input_mode',
        'application.request',
        'application.command_result',
        'animated-waffle.application.version',
      ]),
    );
  });

  it('has no copy of a protocol name or the envelope limit outside protocol/', () => {
    expect(protocolCopies()).toEqual([]);
  });

  it('ships inside the compiled service and both SDK packages, never imported by name', () => {
    const built = ['dist/src', 'dist/worker', 'backend-sdk/dist', 'client-sdk/dist'];
    const importing = built.flatMap((dir) =>
      [...files(path.join(ROOT, dir), /\.(js|d\.ts)$/)]
        .filter((file) => /(['"])@awp\/protocol\1/.test(readFileSync(file, 'utf8')))
        .map((file) => path.relative(ROOT, file)),
    );
    expect(importing).toEqual([]);
    for (const pkg of ['backend-sdk', 'client-sdk']) {
      expect(existsSync(path.join(ROOT, pkg, 'dist/protocol/index.js')), pkg).toBe(true);
      expect(existsSync(path.join(ROOT, pkg, 'dist/protocol/index.d.ts')), pkg).toBe(true);
      const manifest = readFileSync(path.join(ROOT, pkg, 'package.json'), 'utf8');
      expect(manifest, pkg).not.toContain('@awp/protocol');
    }
  });
});
