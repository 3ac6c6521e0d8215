// Moves in a tree the admin panel edits (tags, menu items): where a node goes when it moves up or
// down among its siblings, is indented under the sibling before it, outdented after its parent, or
// dropped before, after or inside another node. Pure functions over `{ id, children }` trees.
export interface TreeNode {
  id: number;
  children: Array<TreeNode>;
}

/** Where a node sits: its parent's id (null: a root), its siblings and its index among them. */
export interface Place {
  parent: number | null;
  siblings: Array<TreeNode>;
  index: number;
}

export function placeOf<N extends TreeNode>(
  nodes: N[],
  id: number,
  parent: number | null = null,
): Place | null {
  const index = nodes.findIndex((node) => node.id === id);
  if (index >= 0) return { parent, siblings: nodes, index };
  for (const node of nodes) {
    const found = placeOf(node.children, id, node.id);
    if (found) return found;
  }
  return null;
}

export function findNode<N extends TreeNode>(nodes: N[], id: number): N | null {
  for (const node of nodes) {
    if (node.id === id) return node;
    const found = findNode(node.children as N[], id);
    if (found) return found;
  }
  return null;
}

/** True when `id` is `ancestor` or below it. */
export function isWithin(nodes: Array<TreeNode>, ancestor: number, id: number): boolean {
  const top = findNode(nodes, ancestor);
  return top !== null && findNode([top], id) !== null;
}

/** A destination: under `parent` (null: a root), at `index` among the siblings left once it moved. */
export interface Destination {
  parent: number | null;
  index: number;
}

export type Move = 'up' | 'down' | 'indent' | 'outdent';

/** Where a keyboard move takes a node; null when it cannot move that way. */
export function destinationOf(nodes: Array<TreeNode>, id: number, move: Move): Destination | null {
  const place = placeOf(nodes, id);
  if (!place) return null;
  const { parent, siblings, index } = place;
  switch (move) {
    case 'up':
      return index > 0 ? { parent, index: index - 1 } : null;
    case 'down':
      return index < siblings.length - 1 ? { parent, index: index + 1 } : null;
    case 'indent': {
      const before = siblings[index - 1];
      return before ? { parent: before.id, index: before.children.length } : null;
    }
    case 'outdent': {
      if (parent === null) return null;
      const up = placeOf(nodes, parent);
      return up ? { parent: up.parent, index: up.index + 1 } : null;
    }
  }
}

/** Where a drop puts `id`: before or after `target` (its sibling), or inside it (its last child). */
export function dropDestination(
  nodes: Array<TreeNode>,
  id: number,
  target: number,
  where: 'before' | 'after' | 'inside',
): Destination | null {
  if (isWithin(nodes, id, target)) return null;
  if (where === 'inside') {
    const node = findNode(nodes, target);
    return node ? { parent: target, index: node.children.filter((child) => child.id !== id).length } : null;
  }
  const place = placeOf(nodes, target);
  if (!place) return null;
  const others = place.siblings.filter((node) => node.id !== id);
  const index = others.findIndex((node) => node.id === target);
  return { parent: place.parent, index: where === 'before' ? index : index + 1 };
}

/** The tree with `id` moved to `to` (a copy; the nodes keep their other fields). */
export function moved<N extends TreeNode>(nodes: N[], id: number, to: Destination): N[] {
  const node = findNode(nodes, id);
  if (!node) return nodes;
  const without = (list: N[]): N[] =>
    list
      .filter((item) => item.id !== id)
      .map((item) => ({ ...item, children: without(item.children as N[]) }));
  const insert = (list: N[], parent: number | null): N[] => {
    if (to.parent === parent) {
      const copy = [...list];
      copy.splice(Math.min(to.index, copy.length), 0, node);
      return copy.map((item) =>
        item === node ? item : { ...item, children: insert(item.children as N[], item.id) },
      );
    }
    return list.map((item) => ({ ...item, children: insert(item.children as N[], item.id) }));
  };
  return insert(without(nodes), null);
}
