import { describe, expect, it } from 'vitest';
import { diffsByObject } from '../../src/kubectl/output/diff-output.js';
import { objectKey } from '../../src/objects/model.js';

// As kubectl 1.32 prints it (kubectl diff -f, exit 1), shortened.
const STDOUT = `diff -u -N /tmp/LIVE-1783768799/apps.v1.Deployment.default.web /tmp/MERGED-3310543938/apps.v1.Deployment.default.web
--- /tmp/LIVE-1783768799/apps.v1.Deployment.default.web	2026-12-03 07:32:35.768326492 +0000
+++ /tmp/MERGED-3310543938/apps.v1.Deployment.default.web	2026-12-03 07:32:35.768326492 +0000
@@ -28,7 +28,7 @@
       containers:
-      - image: nginx:1.25
+      - image: nginx:1.26
diff -u -N /tmp/LIVE-1783768799/v1.ConfigMap.default.cfg.one /tmp/MERGED-3310543938/v1.ConfigMap.default.cfg.one
--- /tmp/LIVE-1783768799/v1.ConfigMap.default.cfg.one	2026-12-03 07:32:35.763052019 +0000
+++ /tmp/MERGED-3310543938/v1.ConfigMap.default.cfg.one	2026-12-03 07:32:35.763052019 +0000
@@ -1,3 +1,3 @@
-  a: "1"
+  a: "2"
diff -u -N /tmp/LIVE-1783768799/v1.Namespace..shop /tmp/MERGED-3310543938/v1.Namespace..shop
@@ -0,0 +1,2 @@
+kind: Namespace
+metadata: {name: shop}

`;

describe('diffsByObject', () => {
  it('splits kubectl diff per object, names with dots and cluster-scoped objects included, without its temporary file lines', () => {
    const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
    const config = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'cfg.one' };
    const shop = { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'shop' };
    const diffs = diffsByObject(STDOUT, [web, config, shop]);
    expect(diffs.get(objectKey(web))).toEqual([
      '@@ -28,7 +28,7 @@',
      '       containers:',
      '-      - image: nginx:1.25',
      '+      - image: nginx:1.26',
    ]);
    expect(diffs.get(objectKey(config))).toEqual(['@@ -1,3 +1,3 @@', '-  a: "1"', '+  a: "2"']);
    expect(diffs.get(objectKey(shop))).toEqual(['@@ -0,0 +1,2 @@', '+kind: Namespace', '+metadata: {name: shop}']);
  });

  it('leaves out objects that are not in the apply', () => {
    expect(diffsByObject(STDOUT, []).size).toBe(0);
  });
});
