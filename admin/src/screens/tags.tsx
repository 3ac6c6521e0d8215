// Tags and categories: one tree per tag type. A tag chosen in the tree can be moved (up, down,
// indent, outdent: buttons, so the keyboard does all that dragging does), renamed or translated,
// merged into another tag of its type, or deleted (the API's 409 says what uses it; a second,
// confirmed click deletes it anyway). Dragging a tag before, after or onto another moves it too.
// Every change is a PATCH of the tags whose parent or order changed; the tree is then read again.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { t } from '../i18n.js';
import { Notices } from '../widgets.js';
import { DraggableRow, useDropTarget } from '../tree-row.js';
import type { Where } from '../tree-row.js';
import type { MessageKey } from '../i18n.js';
import { useMe } from '../session.js';
import { destinationOf, dropDestination, findNode, moved, placeOf } from '../tree.js';
import type { Destination, Move } from '../tree.js';

const TYPES = ['post_category', 'post_tag'] as const;
type TagType = (typeof TYPES)[number];
const MOVES: Move[] = ['up', 'down', 'indent', 'outdent'];

interface Tag {
  id: number;
  name: string;
  parent_id: number | null;
  sort: number;
  children: Tag[];
}

const flatten = (nodes: Tag[], depth = 0): Array<Tag & { depth: number }> =>
  nodes.flatMap((node) => [{ ...node, depth }, ...flatten(node.children, depth + 1)]);

/** The changes that turn `before` into `after`: each tag whose parent or sort differs (sort: descending). */
function patchesOf(before: Tag[], after: Tag[]) {
  const old = new Map(flatten(before).map((tag) => [tag.id, tag]));
  const patches: Array<{ id: number; parent_id?: number | null; sort?: number }> = [];
  const walk = (nodes: Tag[], parent: number | null) =>
    nodes.forEach((node, index) => {
      const sort = nodes.length - 1 - index;
      const was = old.get(node.id);
      const patch: (typeof patches)[number] = { id: node.id };
      if (was?.parent_id !== parent) patch.parent_id = parent;
      if (was?.sort !== sort) patch.sort = sort;
      if (Object.keys(patch).length > 1) patches.push(patch);
      walk(node.children, node.id);
    });
  walk(after, null);
  return patches;
}

/** The tree, each tag a button that chooses it and a row that can be dragged and dropped on. */
function TreeList({
  nodes,
  selected,
  onSelect,
  onDrop,
  dragging,
  setDragging,
}: {
  nodes: Tag[];
  selected: number | null;
  onSelect: (id: number) => void;
  onDrop: (target: number, where: Where) => void;
  dragging: number | null;
  setDragging: (id: number | null) => void;
}) {
  const [over, setOver] = useDropTarget();
  const drag = { dragging, setDragging, onDrop };
  return (
    <ul class="tree" role="list">
      {nodes.map((node) => (
        <li key={node.id} data-tag={node.id}>
          <DraggableRow id={node.id} drag={drag} over={over} setOver={setOver}>
            <button type="button" aria-pressed={selected === node.id} onClick={() => onSelect(node.id)}>
              {node.name}
            </button>
          </DraggableRow>
          {node.children.length > 0 && (
            <TreeList
              nodes={node.children}
              selected={selected}
              onSelect={onSelect}
              onDrop={onDrop}
              dragging={dragging}
              setDragging={setDragging}
            />
          )}
        </li>
      ))}
    </ul>
  );
}

export function TagsScreen() {
  const me = useMe();
  const [type, setType] = useState<TagType>('post_category');
  const tags = useResource(
    () =>
      api
        .GET('/api/v2/tags', { params: { query: { filter: { type } } } })
        .then(({ data, error: problem }) => ({ data: data?.data as Tag[] | undefined, error: problem })),
    [type],
  );
  const tree = tags.data;
  const setTree = tags.setData;
  const reload = tags.reload;
  const [selected, setSelected] = useState<number | null>(null);
  const [dragging, setDragging] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  // The new tag's name; what the last change did, and what went wrong (of any action of the screen).
  const form = useForm({ name: '' }, async ({ name: typed }) => {
    const name = typed.trim();
    if (!name) return;
    const { data, error: problem } = await api.POST('/api/v2/tags', {
      body: { name, type, ...(me.website ? { website_ids: [me.website.id] } : {}) } as never,
    });
    if (problem || !data) return { error: problem?.detail ?? problem?.title ?? '' };
    form.reset();
    setSelected(data.data.id);
    reload();
    return t('tags.created', { name });
  });
  const { setError } = form;
  const setNotice = form.setSaved;
  const error = form.error || (tags.error ? (tags.error.detail ?? tags.error.title) : '');

  const fail = (problem: { detail?: string | null; title: string } | undefined) =>
    setError(problem?.detail ?? problem?.title ?? '');

  const move = async (id: number, to: Destination | null) => {
    if (!tree || !to) return;
    const next = moved(tree, id, to);
    setBusy(true);
    setError('');
    setTree(next);
    for (const { id: tagId, ...body } of patchesOf(tree, next)) {
      const { error: problem } = await api.PATCH('/api/v2/tags/{id}', {
        params: { path: { id: String(tagId) } },
        body,
      });
      if (problem) {
        fail(problem);
        break;
      }
    }
    setBusy(false);
    const name = findNode(next, id)?.name ?? '';
    setNotice(t('tags.moved', { name }));
    reload();
  };

  const current = tree && selected !== null ? findNode(tree, selected) : null;
  const place = tree && selected !== null ? placeOf(tree, selected) : null;

  return (
    <section aria-labelledby="tags-title">
      <h1 id="tags-title">{t('tags.title')}</h1>
      <nav class="tabs" aria-label={t('tags.types')}>
        {TYPES.map((name) => (
          <button
            key={name}
            type="button"
            class={name === type ? 'tab current' : 'tab'}
            aria-pressed={name === type}
            onClick={() => {
              setType(name);
              setSelected(null);
              setTree(null);
            }}
          >
            {t(`tags.type.${name}` as MessageKey)}
          </button>
        ))}
      </nav>
      <form class="add-row" onSubmit={(event) => void form.submit(event)}>
        <label for="tag-new">{t(`tags.new.${type}` as MessageKey)}</label>
        <div class="inline">
          <input
            id="tag-new"
            value={form.values.name}
            maxLength={190}
            onInput={(e) => form.set({ name: e.currentTarget.value })}
          />
          <button type="submit">{t('tags.add')}</button>
        </div>
      </form>
      <Notices notice={form.saved} error={error} />
      <div class="split">
        <div>
          <p class="help">{t('tags.help')}</p>
          {tree === null ? (
            <p>{t('app.loading')}</p>
          ) : tree.length === 0 ? (
            <p>{t('tags.empty')}</p>
          ) : (
            <TreeList
              nodes={tree}
              selected={selected}
              onSelect={setSelected}
              dragging={dragging}
              setDragging={setDragging}
              onDrop={(target, where) => {
                if (dragging === null) return;
                const id = dragging;
                setDragging(null);
                setSelected(id);
                void move(id, dropDestination(tree, id, target, where));
              }}
            />
          )}
        </div>
        {current && place && tree && (
          <TagPanel
            key={current.id}
            tag={current}
            type={type}
            tree={tree}
            busy={busy}
            canMove={(how) => destinationOf(tree, current.id, how) !== null}
            onMove={(how) => void move(current.id, destinationOf(tree, current.id, how))}
            onChanged={(message) => {
              setError('');
              setNotice(message);
              reload();
            }}
            onDeleted={(message) => {
              setSelected(null);
              setError('');
              setNotice(message);
              reload();
            }}
            onError={setError}
          />
        )}
      </div>
    </section>
  );
}

function TagPanel({
  tag,
  type,
  tree,
  busy,
  canMove,
  onMove,
  onChanged,
  onDeleted,
  onError,
}: {
  tag: Tag;
  type: TagType;
  tree: Tag[];
  busy: boolean;
  canMove: (move: Move) => boolean;
  onMove: (move: Move) => void;
  onChanged: (message: string) => void;
  onDeleted: (message: string) => void;
  onError: (message: string) => void;
}) {
  const me = useMe();
  const locales = me.locales.supported.length > 0 ? me.locales.supported : [me.locales.default];
  const [locale, setLocale] = useState(me.locales.default);
  const [inUse, setInUse] = useState<string | null>(null);

  const problemText = (problem: { detail?: string | null; title: string; errors?: unknown }) => {
    const errors = problem.errors as Record<string, string[]> | undefined;
    return Object.values(errors ?? {})[0]?.[0] ?? problem.detail ?? problem.title;
  };

  // The name in the chosen locale (the tree holds the base names). What the panel did is shown by the
  // screen (onChanged, onError): the form holds only the fields.
  const translation = useResource(
    () =>
      locale === me.locales.default
        ? Promise.resolve({ data: { locale, name: tag.name } })
        : api.GET('/api/v2/tags', { params: { query: { filter: { type }, locale } } }).then(({ data }) => ({
            data: { locale, name: findNode((data?.data ?? []) as Tag[], tag.id)?.name ?? '' },
          })),
    [locale, tag.id, tag.name],
  );
  const form = useForm({ name: tag.name, into: '' }, async ({ name }) => {
    const text = name.trim();
    // A translation is sent with the base name, which a map without it would replace.
    const body =
      locale === me.locales.default
        ? { name: text }
        : { name: { [me.locales.default]: tag.name, [locale]: text } };
    const { error } = await api.PATCH('/api/v2/tags/{id}', {
      params: { path: { id: String(tag.id) } },
      body,
    });
    if (error) return onError(problemText(error));
    onChanged(t('tags.renamed', { name: text }));
  });
  const { name, into } = form.values;
  // The locale of the name in the field: the field waits for the name in the chosen one (typing
  // meanwhile would be overwritten), and is enabled with it in the same render.
  const [shown, setShown] = useState(locale);
  const loadingName = shown !== locale;
  useEffect(() => {
    const loaded = translation.data;
    if (!loaded) return;
    form.reset((current) => ({ ...current, name: loaded.name }));
    setShown(loaded.locale);
  }, [translation.data]);

  const merge = async (event: Event) => {
    event.preventDefault();
    const target = flatten(tree).find((other) => String(other.id) === into);
    if (!target || !confirm(t('tags.merge.confirm', { name: tag.name, into: target.name }))) return;
    const { error } = await api.POST('/api/v2/tags/{id}/merge', {
      params: { path: { id: String(tag.id) } },
      body: { into: target.id },
    });
    if (error) return onError(problemText(error));
    onDeleted(t('tags.merged', { name: tag.name, into: target.name }));
  };

  const remove = async (force: boolean) => {
    if (!force && !confirm(t('tags.delete.confirm', { name: tag.name }))) return;
    const { error } = await api.DELETE('/api/v2/tags/{id}', {
      params: { path: { id: String(tag.id) }, query: force ? { force: 'true' } : {} },
    });
    if (error) {
      if (error.status === 409 && !force) return setInUse(error.detail ?? error.title);
      return onError(problemText(error));
    }
    onDeleted(t('tags.deleted', { name: tag.name }));
  };

  const others = flatten(tree).filter((other) => other.id !== tag.id);
  return (
    <section class="panel" aria-labelledby="tag-panel-title">
      <h2 id="tag-panel-title">{tag.name}</h2>
      <div class="move-buttons" role="group" aria-label={t('tags.move')}>
        {MOVES.map((how) => (
          // aria-disabled, not disabled: the focus stays on the button the keyboard pressed.
          <button
            key={how}
            type="button"
            aria-disabled={busy || !canMove(how)}
            onClick={() => {
              if (!busy && canMove(how)) onMove(how);
            }}
          >
            {t(`tree.${how}` as MessageKey)}
          </button>
        ))}
      </div>
      <form onSubmit={(event) => void form.submit(event)}>
        {locales.length > 1 && (
          <>
            <label for="tag-locale">{t('tags.locale')}</label>
            <select id="tag-locale" value={locale} onChange={(event) => setLocale(event.currentTarget.value)}>
              {locales.map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </select>
          </>
        )}
        <label for="tag-name">{t('tags.name')}</label>
        <input
          id="tag-name"
          value={name}
          maxLength={190}
          required={locale === me.locales.default}
          disabled={loadingName}
          onInput={(event) => form.set({ name: event.currentTarget.value })}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={loadingName}>
            {t('tags.rename')}
          </button>
        </div>
      </form>
      {others.length > 0 && (
        <form onSubmit={(event) => void merge(event)}>
          <label for="tag-merge">{t('tags.merge.into')}</label>
          <select
            id="tag-merge"
            value={into}
            required
            onChange={(event) => form.set({ into: event.currentTarget.value })}
          >
            <option value="">{t('tags.merge.choose')}</option>
            {others.map((other) => (
              <option key={other.id} value={String(other.id)}>
                {'\u2003'.repeat(other.depth)}
                {other.name}
              </option>
            ))}
          </select>
          <p class="help">{t('tags.merge.help')}</p>
          <div class="actions">
            <button type="submit">{t('tags.merge')}</button>
          </div>
        </form>
      )}
      <button type="button" class="danger" onClick={() => void remove(false)}>
        {t('tags.delete')}
      </button>
      {inUse && (
        <div class="notice error" role="alert">
          <p>{inUse}</p>
          <button type="button" class="danger" onClick={() => void remove(true)}>
            {t('tags.delete.force')}
          </button>
        </div>
      )}
    </section>
  );
}
