// Menus: the website's named menus (create, rename, delete) and a builder for one menu's tree. Items
// point to a page, a post, a tag or a URL, with a target and an icon; they are reordered and nested
// with buttons (move up, down, indent, outdent) or by dragging, and the whole tree is saved in one
// PUT with If-Match. When someone else saved the menu meanwhile, the API answers 412 and the screen
// says so, offering to load their version.
import type { Problem } from '../api.js';
import { useEffect, useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { t } from '../i18n.js';
import { Checkbox, Notices } from '../widgets.js';
import { DraggableRow, useDropTarget } from '../tree-row.js';
import type { Where } from '../tree-row.js';
import type { MessageKey } from '../i18n.js';
import { setLeaveGuard } from '../nav.js';
import { useMe } from '../session.js';
import { destinationOf, dropDestination, findNode, moved } from '../tree.js';
import type { Destination, Move } from '../tree.js';
import type { components } from '../../../clients/typescript/schema.js';

type MenuSummary = components['schemas']['MenuSummary'];
type MenuItem = components['schemas']['MenuItem'];
type Kind = MenuItem['type'];
type Target = MenuItem['target'];
const KINDS: Kind[] = ['page', 'post', 'tag', 'link'];
const MOVES: Move[] = ['up', 'down', 'indent', 'outdent'];

/** An item being edited: `id` is the stored id, or a negative number for an item not saved yet. */
interface Item {
  id: number;
  label: string;
  translations: Record<string, string>;
  type: Kind;
  ref: number | null;
  url: string;
  target: Target;
  icon: string;
  children: Item[];
}
interface Choice {
  id: number;
  name: string;
}
interface Choices {
  page: Choice[];
  post: Choice[];
  tag: Choice[];
}

function itemOf(item: MenuItem): Item {
  return {
    id: item.id,
    label: item.label,
    translations: item.translations.label ?? {},
    type: item.type,
    ref: item.page_id ?? item.post_id ?? item.tag_id ?? null,
    url: item.type === 'link' ? (item.url ?? '') : '',
    target: item.target,
    icon: item.icon ?? '',
    children: item.children.map(itemOf),
  };
}

const flatten = (items: Item[], parent: number | null = null): Array<{ item: Item; parent: number | null }> =>
  items.flatMap((item) => [{ item, parent }, ...flatten(item.children, item.id)]);

/** The PUT body: the tree flat, in display order, each item naming its parent by `ref`. */
function bodyOf(items: Item[], defaultLocale: string) {
  return {
    items: flatten(items).map(({ item, parent }) => ({
      ref: String(item.id),
      parent: parent === null ? null : String(parent),
      // A map keeps the translations (the default locale's text is the base label).
      label:
        Object.keys(item.translations).length > 0
          ? { ...item.translations, [defaultLocale]: item.label }
          : item.label,
      type: item.type,
      ...(item.type === 'page' ? { page_id: item.ref ?? 0 } : {}),
      ...(item.type === 'post' ? { post_id: item.ref ?? 0 } : {}),
      ...(item.type === 'tag' ? { tag_id: item.ref ?? 0 } : {}),
      ...(item.type === 'link' ? { url: item.url.trim() } : {}),
      target: item.target,
      icon: item.icon.trim() || null,
    })),
  };
}

const textOf = problemText;

/** A menu as the builder shows it: whether the user may change it is API v2's `can`. */
const menuOf = (menu: { name: string; handle: string; can?: { update: boolean } | null }) => ({
  name: menu.name,
  handle: menu.handle,
  writable: menu.can?.update ?? true,
});
/** What a refused write says: a 412 is the conflict (someone else saved the menu meanwhile). */
const failureOf = (problem: Problem) => (problem.status === 412 ? t('menus.conflict') : textOf(problem));
const NO_CHOICES: Choices = { page: [], post: [], tag: [] };

export function MenusScreen() {
  const me = useMe();
  const websiteId = me.website?.id ?? 0;
  const list = useResource(
    () =>
      api
        .GET('/api/v2/websites/{id}/menus', { params: { path: { id: String(websiteId) } } })
        .then(({ data, error: problem }) => ({ data: data?.data, error: problem })),
    [websiteId],
  );
  const menus: MenuSummary[] | null = list.data;
  const [open, setOpen] = useState<number | null>(null);
  // A new menu: its name and handle.
  const form = useForm({ handle: '', name: '' }, async ({ handle, name }) => {
    const { data, error: problem } = await api.POST('/api/v2/websites/{id}/menus', {
      params: { path: { id: String(websiteId) } },
      body: { handle: handle.trim(), name: name.trim() },
    });
    if (problem) return { error: textOf(problem) };
    form.reset();
    list.reload();
    setOpen(data.data.id);
    return t('menus.created', { name: data.data.name });
  });
  const { handle, name } = form.values;
  const notice = form.saved;
  const error = form.error || (list.error ? textOf(list.error) : '');

  return (
    <section aria-labelledby="menus-title">
      <h1 id="menus-title">{t('menus.title')}</h1>
      <Notices notice={notice} error={error} />
      <div class="split split-start">
        <div>
          <h2>{t('menus.list')}</h2>
          {menus === null ? (
            <p>{t('app.loading')}</p>
          ) : menus.length === 0 ? (
            <p>{t('menus.empty')}</p>
          ) : (
            <ul class="menu-list">
              {menus.map((menu) => (
                <li key={menu.id}>
                  <button
                    type="button"
                    aria-pressed={open === menu.id}
                    onClick={() => {
                      form.setSaved('');
                      setOpen(menu.id);
                    }}
                  >
                    {menu.name} <span class="handle">{menu.handle}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form onSubmit={(event) => void form.submit(event)}>
            <h3>{t('menus.new')}</h3>
            <label for="menu-new-name">{t('menus.name')}</label>
            <input
              id="menu-new-name"
              value={name}
              required
              maxLength={255}
              onInput={(e) => form.set({ name: e.currentTarget.value })}
            />
            <label for="menu-new-handle">{t('menus.handle')}</label>
            <input
              id="menu-new-handle"
              value={handle}
              required
              maxLength={50}
              aria-describedby="menu-new-handle-help"
              onInput={(e) => form.set({ handle: e.currentTarget.value })}
            />
            <p class="help" id="menu-new-handle-help">
              {t('menus.handle.help')}
            </p>
            <button type="submit">{t('menus.create')}</button>
          </form>
        </div>
        {open !== null && (
          <MenuBuilder
            key={open}
            id={open}
            onRenamed={(text) => {
              form.setSaved(text);
              list.reload();
            }}
            onDeleted={(text) => {
              setOpen(null);
              form.setSaved(text);
              list.reload();
            }}
          />
        )}
      </div>
    </section>
  );
}

function ItemTree({
  items,
  selected,
  onSelect,
  dragging,
  setDragging,
  onDrop,
}: {
  items: Item[];
  selected: number | null;
  onSelect: (id: number) => void;
  dragging: number | null;
  setDragging: (id: number | null) => void;
  onDrop: (target: number, where: Where) => void;
}) {
  const [over, setOver] = useDropTarget();
  const drag = { dragging, setDragging, onDrop };
  return (
    <ul class="tree">
      {items.map((item) => (
        <li key={item.id} data-item={item.id}>
          <DraggableRow id={item.id} drag={drag} over={over} setOver={setOver}>
            <button type="button" aria-pressed={selected === item.id} onClick={() => onSelect(item.id)}>
              {item.icon && <span aria-hidden="true">{item.icon} </span>}
              {item.label || t('menus.item.unnamed')}{' '}
              <span class="kind">{t(`menus.kind.${item.type}` as MessageKey)}</span>
            </button>
          </DraggableRow>
          {item.children.length > 0 && (
            <ItemTree
              items={item.children}
              selected={selected}
              onSelect={onSelect}
              dragging={dragging}
              setDragging={setDragging}
              onDrop={onDrop}
            />
          )}
        </li>
      ))}
    </ul>
  );
}

let nextNewId = -1;

function MenuBuilder({
  id,
  onRenamed,
  onDeleted,
}: {
  id: number;
  onRenamed: (text: string) => void;
  onDeleted: (text: string) => void;
}) {
  const me = useMe();
  const [selected, setSelected] = useState<number | null>(null);
  const [dragging, setDragging] = useState<number | null>(null);
  const [rename, setRename] = useState('');
  // The menu as stored, with the ETag the next write sends (If-Match); its items are the form's.
  const stored = useResource(
    () =>
      api
        .GET('/api/v2/menus/{id}', { params: { path: { id: String(id) } } })
        .then(({ data, error, response }) => {
          if (!data) return { error };
          setRename(data.data.name);
          form.reset({ items: data.data.items.map(itemOf) });
          // API v2's `can` (issue 34 #19): a menu the user may not change is shown, not offered for change.
          return { data: { menu: menuOf(data.data), etag: response.headers.get('etag') } };
        }),
    [id],
  );
  const menu = stored.data?.menu ?? null;
  const etag = stored.data?.etag ?? null;
  const setEtag = (next: string | null) => stored.setData((current) => current && { ...current, etag: next });
  // The tree being built. The screen shows one message: what the last save said, or what went wrong
  // (a 412 is the conflict, which offers to load the other version).
  const form = useForm<{ items: Item[] }>({ items: [] }, async ({ items }) => {
    const { data, error, response } = await api.PUT('/api/v2/menus/{id}/items', {
      params: { path: { id: String(id) } },
      headers: etag ? { 'if-match': etag } : {},
      body: bodyOf(items, me.locales.default) as never,
    });
    if (error) {
      form.setSaved('');
      return { error: failureOf(error) };
    }
    setEtag(response.headers.get('etag'));
    form.reset({ items: data.data.items.map(itemOf) });
    setSelected(null);
    return t('menus.saved');
  });
  const { items } = form.values;
  const { dirty } = form;
  const message = form.error
    ? { kind: form.error === t('menus.conflict') ? 'conflict' : 'error', text: form.error }
    : form.saved
      ? { kind: 'ok', text: form.saved }
      : null;
  /** Shows what went wrong in place of the message (as the save does). */
  const fail = (problem: Problem) => {
    form.setSaved('');
    form.setError(failureOf(problem));
  };
  const choices =
    useResource(() => {
      const flat = (nodes: Array<{ id: number; name: string; children: unknown[] }>): Choice[] =>
        nodes.flatMap((node) => [{ id: node.id, name: node.name }, ...flat(node.children as typeof nodes)]);
      return Promise.all([
        api.GET('/api/v2/pages', { params: { query: { per_page: 100 } } }),
        api.GET('/api/v2/posts', {
          params: { query: { per_page: 100, fields: 'id,title', filter: { status: 'published' } } },
        }),
        api.GET('/api/v2/tags', { params: { query: { filter: { type: 'post_category' } } } }),
        api.GET('/api/v2/tags', { params: { query: { filter: { type: 'post_tag' } } } }),
      ]).then(([pages, posts, categories, tags]) => ({
        data: {
          page: (pages.data?.data ?? []).map((page) => ({ id: page.id, name: page.title })),
          post: (posts.data?.data ?? []).map((post) => ({ id: post.id!, name: post.title ?? '' })),
          tag: [...flat(categories.data?.data ?? []), ...flat(tags.data?.data ?? [])],
        },
      }));
    }, []).data ?? NO_CHOICES;

  useEffect(() => {
    setLeaveGuard(() => dirty);
    return () => setLeaveGuard(null);
  }, [dirty]);

  const change = (next: Item[]) => {
    form.set({ items: next });
    form.setSaved('');
    form.setError('');
  };
  const [moveNote, setMoveNote] = useState('');
  const move = (itemId: number, to: Destination | null) => {
    if (!to) return;
    change(moved(items, itemId, to));
    const label = findNode(items, itemId)?.label || t('menus.item.unnamed');
    setMoveNote(t('menus.moved', { name: label }));
  };
  const update = (itemId: number, patch: Partial<Item>) => {
    const apply = (nodes: Item[]): Item[] =>
      nodes.map((node) =>
        node.id === itemId ? { ...node, ...patch } : { ...node, children: apply(node.children) },
      );
    change(apply(items));
  };
  const remove = (itemId: number) => {
    const without = (nodes: Item[]): Item[] =>
      nodes
        .filter((node) => node.id !== itemId)
        .map((node) => ({ ...node, children: without(node.children) }));
    change(without(items));
    setSelected(null);
  };
  const add = () => {
    const item: Item = {
      id: nextNewId--,
      label: '',
      translations: {},
      type: 'link',
      ref: null,
      url: '',
      target: '_self',
      icon: '',
      children: [],
    };
    change([...items, item]);
    setSelected(item.id);
  };

  const saveName = async (event: Event) => {
    event.preventDefault();
    const { data, error, response } = await api.PATCH('/api/v2/menus/{id}', {
      params: { path: { id: String(id) } },
      headers: etag ? { 'if-match': etag } : {},
      body: { name: rename.trim() },
    });
    if (error) return fail(error);
    stored.setData({ menu: menuOf(data.data), etag: response.headers.get('etag') });
    onRenamed(t('menus.renamed', { name: data.data.name }));
  };

  const destroy = async () => {
    if (!menu || !confirm(t('menus.delete.confirm', { name: menu.name }))) return;
    const { error } = await api.DELETE('/api/v2/menus/{id}', {
      params: { path: { id: String(id) } },
      headers: etag ? { 'if-match': etag } : {},
    });
    if (error) return fail(error);
    form.reset(form.values);
    setLeaveGuard(null);
    onDeleted(t('menus.deleted', { name: menu.name }));
  };

  if (!menu) return <p>{t('app.loading')}</p>;
  const current = selected === null ? null : findNode(items, selected);
  return (
    <section class="builder" aria-labelledby="menu-title">
      <h2 id="menu-title">{t('menus.editing', { name: menu.name })}</h2>
      {!menu.writable && (
        <p class="notice" role="status">
          {t('menus.readonly')}
        </p>
      )}
      {menu.writable && (
        <form class="inline-form" onSubmit={(event) => void saveName(event)}>
          <label for="menu-name">{t('menus.name')}</label>
          <div class="inline">
            <input
              id="menu-name"
              value={rename}
              required
              maxLength={255}
              onInput={(e) => setRename(e.currentTarget.value)}
            />
            <button type="submit">{t('menus.rename')}</button>
          </div>
        </form>
      )}
      <p class="help">{t('menus.builder.help')}</p>
      {items.length === 0 ? (
        <p>{t('menus.items.empty')}</p>
      ) : (
        <ItemTree
          items={items}
          selected={selected}
          onSelect={setSelected}
          dragging={dragging}
          setDragging={setDragging}
          onDrop={(target, where) => {
            if (dragging === null) return;
            const dragged = dragging;
            setDragging(null);
            setSelected(dragged);
            move(dragged, dropDestination(items, dragged, target, where));
          }}
        />
      )}
      <p class="visually-hidden" role="status">
        {moveNote}
      </p>
      <MenuPreview
        siteName={me.website?.name ?? ''}
        items={items}
        choices={choices}
        header={menu.handle === 'header'}
      />
      {menu.writable && (
        <div class="actions">
          <button type="button" onClick={add}>
            {t('menus.item.add')}
          </button>
        </div>
      )}
      {current && menu.writable && (
        <ItemForm
          key={current.id}
          item={current}
          choices={choices}
          canMove={(how) => destinationOf(items, current.id, how) !== null}
          onMove={(how) => move(current.id, destinationOf(items, current.id, how))}
          onChange={(patch) => update(current.id, patch)}
          onRemove={() => remove(current.id)}
        />
      )}
      {message && (
        <div
          class={`notice ${message.kind === 'ok' ? '' : 'error'}`}
          role={message.kind === 'ok' ? 'status' : 'alert'}
        >
          <p>{message.text}</p>
          {message.kind === 'conflict' && (
            <button type="button" onClick={stored.reload}>
              {t('menus.conflict.reload')}
            </button>
          )}
        </div>
      )}
      {menu.writable && (
        <>
          <div class="actions">
            <button type="button" class="primary" onClick={() => void form.submit()}>
              {t('menus.save')}
            </button>
            <span class="save-state">{dirty ? t('editor.unsaved') : ''}</span>
          </div>
          <button type="button" class="danger" onClick={() => void destroy()}>
            {t('menus.delete')}
          </button>
        </>
      )}
    </section>
  );
}

/**
 * The menu as the site will show it, unsaved changes included: in a header bar under the site's
 * name for the `header` menu, as a plain bar otherwise. Labels only (a preview is not a way out of
 * the panel); what an item points to is its tooltip.
 */
function MenuPreview({
  siteName,
  items,
  choices,
  header,
}: {
  siteName: string;
  items: Item[];
  choices: Choices;
  header: boolean;
}) {
  if (items.length === 0) return null;
  const targetOf = (item: Item) =>
    item.type === 'link'
      ? item.url
      : (choices[item.type].find((choice) => choice.id === item.ref)?.name ?? t('menus.preview.missing'));
  const list = (nodes: Item[]) => (
    <ul>
      {nodes.map((item) => (
        <li key={item.id}>
          <span class="preview-link" title={targetOf(item)}>
            {item.icon && <span aria-hidden="true">{item.icon} </span>}
            {item.label || t('menus.item.unnamed')}
            {item.target === '_blank' && <span aria-hidden="true"> ↗</span>}
          </span>
          {item.children.length > 0 && list(item.children)}
        </li>
      ))}
    </ul>
  );
  return (
    <figure class="menu-preview">
      <figcaption>{t(header ? 'menus.preview.header' : 'menus.preview')}</figcaption>
      <div class="preview-bar">
        {header && <strong class="preview-site">{siteName}</strong>}
        {list(items)}
      </div>
    </figure>
  );
}

function ItemForm({
  item,
  choices,
  canMove,
  onMove,
  onChange,
  onRemove,
}: {
  item: Item;
  choices: Choices;
  canMove: (move: Move) => boolean;
  onMove: (move: Move) => void;
  onChange: (patch: Partial<Item>) => void;
  onRemove: () => void;
}) {
  const options = item.type === 'link' ? [] : choices[item.type];
  return (
    <fieldset class="item-form">
      <legend>{t('menus.item', { name: item.label || t('menus.item.unnamed') })}</legend>
      <div class="move-buttons" role="group" aria-label={t('tags.move')}>
        {MOVES.map((how) => (
          // aria-disabled, not disabled: the focus stays on the button the keyboard pressed.
          <button
            key={how}
            type="button"
            aria-disabled={!canMove(how)}
            onClick={() => {
              if (canMove(how)) onMove(how);
            }}
          >
            {t(`tree.${how}` as MessageKey)}
          </button>
        ))}
      </div>
      <label for="item-label">{t('menus.item.label')}</label>
      <input
        id="item-label"
        value={item.label}
        maxLength={255}
        onInput={(e) => onChange({ label: e.currentTarget.value })}
      />
      <label for="item-type">{t('menus.item.type')}</label>
      <select
        id="item-type"
        value={item.type}
        onChange={(e) => onChange({ type: e.currentTarget.value as Kind, ref: null })}
      >
        {KINDS.map((kind) => (
          <option key={kind} value={kind}>
            {t(`menus.kind.${kind}` as MessageKey)}
          </option>
        ))}
      </select>
      {item.type === 'link' ? (
        <>
          <label for="item-url">{t('menus.item.url')}</label>
          <input
            id="item-url"
            value={item.url}
            maxLength={2048}
            placeholder="https://"
            onInput={(e) => onChange({ url: e.currentTarget.value })}
          />
        </>
      ) : (
        <>
          <label for="item-ref">{t(`menus.item.${item.type}` as MessageKey)}</label>
          <select
            id="item-ref"
            value={item.ref === null ? '' : String(item.ref)}
            onChange={(e) => {
              const ref = e.currentTarget.value ? Number(e.currentTarget.value) : null;
              const name = options.find((option) => option.id === ref)?.name ?? '';
              onChange({ ref, ...(item.label ? {} : { label: name }) });
            }}
          >
            <option value="">{t('menus.item.choose')}</option>
            {options.map((option) => (
              <option key={option.id} value={String(option.id)}>
                {option.name}
              </option>
            ))}
          </select>
        </>
      )}
      <Checkbox
        checked={item.target === '_blank'}
        onChange={(on) => onChange({ target: on ? '_blank' : '_self' })}
      >
        {t('menus.item.blank')}
      </Checkbox>
      <label for="item-icon">{t('menus.item.icon')}</label>
      <input
        id="item-icon"
        value={item.icon}
        maxLength={100}
        aria-describedby="item-icon-help"
        onInput={(e) => onChange({ icon: e.currentTarget.value })}
      />
      <p class="help" id="item-icon-help">
        {t('menus.item.icon.help')}
      </p>
      <button type="button" class="danger" onClick={onRemove}>
        {t('menus.item.remove')}
      </button>
    </fieldset>
  );
}
