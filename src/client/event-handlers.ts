// Informer handlers of the common shapes: every change of an object, whatever its kind (add, update,
// delete), leads to the same call, most often "enqueue its name". Handlers only enqueue keys: the
// work happens in the controller's queue.

import type { KubeObject } from '../api/meta.js';
import type { Controller, Informer } from './types.js';

/** Calls `fn` with the object of every add, every update (the new object) and every delete. */
export function onEveryChange<T extends KubeObject>(informer: Pick<Informer<T>, 'addHandlers'>, fn: (obj: T) => void): void {
  informer.addHandlers({ onAdd: fn, onUpdate: (_old, obj) => fn(obj), onDelete: fn });
}

/** Enqueues the name of every object added, updated or deleted. */
export function enqueueByName<T extends KubeObject>(informer: Pick<Informer<T>, 'addHandlers'>, controller: Pick<Controller, 'enqueue'>): void {
  onEveryChange(informer, (obj) => {
    if (obj.metadata.name) controller.enqueue(obj.metadata.name);
  });
}
