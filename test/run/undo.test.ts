// What `kguard undo --dry-run` says of one object (run/undo/undo.ts previewOf): the restore's own rule
// first (someone else's change wins), then the differences, kubectl diff style. Pure.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/model.js';
import type { RestoreStep } from '../../src/restore/plan.js';
import { previewOf } from '../../src/run/undo/undo.js';

const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' };
const configMap = (data: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop', uid: 'cm-1', resourceVersion: '7', ...extra },
  data,
});

describe('previewOf', () => {
  it('shows what a put-back changes, without what the API server owns', () => {
    const step: RestoreStep = {
      ref,
      action: 'put-back',
      before: configMap({ mode: 'old' }),
      applied: configMap({ mode: 'new' }, { resourceVersion: '9' }),
    };
    const preview = previewOf(step, configMap({ mode: 'new' }, { resourceVersion: '12' }), 'kguard-1');
    expect(preview.action).toBe('put-back');
    expect(preview.detail).toBe('would be put back as it was before run kguard-1:');
    expect(preview.lines).toEqual([
      '--- live configmap/settings',
      '+++ before run kguard-1',
      '@@ -1,6 +1,6 @@',
      ' apiVersion: v1',
      ' data:',
      '-  mode: new',
      '+  mode: old',
      ' kind: ConfigMap',
      ' metadata:',
      '   name: settings',
    ]);
  });

  it('would not put back an object someone changed since the run', () => {
    const step: RestoreStep = {
      ref,
      action: 'put-back',
      before: configMap({ mode: 'old' }),
      applied: configMap({ mode: 'new' }),
    };
    const preview = previewOf(step, configMap({ mode: 'theirs' }), 'kguard-1');
    expect(preview).toMatchObject({ action: 'keep', lines: [] });
    expect(preview.detail).toMatch(
      /^would NOT be put back: someone else changed data.mode after kguard applied it, and their change wins$/,
    );
  });

  it('would delete what the run created, unless it is gone already', () => {
    const step: RestoreStep = { ref, action: 'delete', applied: configMap({ mode: 'new' }) };
    expect(previewOf(step, configMap({ mode: 'new' }), 'kguard-1')).toMatchObject({
      action: 'delete',
      detail: 'would be deleted (run kguard-1 created it)',
    });
    expect(previewOf(step, undefined, 'kguard-1')).toMatchObject({
      action: 'none',
      detail: 'already gone (run kguard-1 created it)',
    });
  });
});
