// How kguard's own objects in the cluster are marked. A module of its own, with no imports: the
// Redactor (loaded at start-up) tells kguard's journal from the user's Secrets by these, without
// loading the journal's code.

/** On the run journal Secret, with the journal format's version as its value. */
export const JOURNAL_LABEL = 'kguard.dev/journal';
/** The journal Secret's type (a Secret's type is free text; this one says whose it is). */
export const JOURNAL_TYPE = 'kguard.dev/journal';
/** On every object kguard writes for itself: the journal and the leases. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kguard';
/** On every Lease of kguard's, with the lease format's version: one list finds a namespace's. */
export const LEASE_LABEL = 'kguard.dev/lease';
/** On every Lease of kguard's: the run that holds it. */
export const RUN_LABEL = 'kguard.dev/run';
/** On a run's history record (a Secret), with the record format's version: `kguard history` and `undo` find them. */
export const HISTORY_LABEL = 'kguard.dev/history';
/** The history record Secret's type. */
export const HISTORY_TYPE = 'kguard.dev/history';
