// One row of a tree the panel reorders by dragging (tags, menu items): dropped on its top third a
// node goes before the row, on its bottom third after it, in the middle inside it. The buttons of
// each screen do the same moves from the keyboard; this is the pointer's way.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/** Where a dropped node goes, relative to the row it is dropped on. */
export type Where = 'before' | 'after' | 'inside';

export interface DragState {
  dragging: number | null;
  setDragging: (id: number | null) => void;
  onDrop: (target: number, where: Where) => void;
}

/** Where a drop on the row lands, from the pointer's height in it. */
function whereOf(event: DragEvent): Where {
  const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
  const y = (event.clientY - box.top) / box.height;
  return y < 0.3 ? 'before' : y > 0.7 ? 'after' : 'inside';
}

/** The row hovered and where a drop would land (shared by the rows of one tree). */
export function useDropTarget() {
  return useState<{ id: number; where: Where } | null>(null);
}

export function DraggableRow({
  id,
  drag,
  over,
  setOver,
  children,
}: {
  id: number;
  drag: DragState;
  over: { id: number; where: Where } | null;
  setOver: (over: { id: number; where: Where } | null) => void;
  children: ComponentChildren;
}) {
  return (
    <div
      class={`tree-row${over?.id === id ? ` drop-${over.where}` : ''}`}
      draggable
      onDragStart={(event) => {
        event.dataTransfer?.setData('text/plain', String(id));
        drag.setDragging(id);
        event.stopPropagation();
      }}
      onDragEnd={() => drag.setDragging(null)}
      onDragOver={(event) => {
        if (drag.dragging === null || drag.dragging === id) return;
        event.preventDefault();
        setOver({ id, where: whereOf(event) });
      }}
      onDragLeave={() => setOver(null)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(null);
        drag.onDrop(id, whereOf(event));
      }}
    >
      <span class="grip" aria-hidden="true">
        ⠿
      </span>
      {children}
    </div>
  );
}
