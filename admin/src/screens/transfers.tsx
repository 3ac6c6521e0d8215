// Import and export (issue 39): export this website (its site admins) or the whole installation
// (administrators), follow the job's progress from GET /api/v2/transfers/{id}, then download the
// archive; import a file (administrators): a dry run first shows its report, then the real import.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, csrfToken, problemText } from '../api.js';
import type { Problem } from '../api.js';
import { useForm } from '../hooks.js';
import type { Outcome } from '../hooks.js';
import { t } from '../i18n.js';
import { useAbilities, useMe } from '../session.js';
import { Checkbox, Message } from '../widgets.js';
import type { components } from '../../../clients/typescript/schema.js';

type Transfer = components['schemas']['Transfer'];

interface Report {
  dry_run: boolean;
  created: Record<string, number>;
  merged: Record<string, number>;
  renamed: Array<{ kind: string; from: string; to: string }>;
  skipped: Array<{ kind: string; id: unknown; reason: string }>;
  media_files: number;
  without_password?: Array<{ id: number; email: string }>;
  invites?: { invited: number; failed: Array<{ email: string; reason: string }> };
}

const POLL_MS = 1000;

/** What went wrong, as the screen's message shows it (nothing: no message). */
const noteOf = (error: string) => (error ? { kind: 'error', text: error } : null);

const size = (bytes: number) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Follows a transfer until it is done or failed (polling its status), answering its last state. */
function useTransfer(initial: Transfer | null): Transfer | null {
  const [transfer, setTransfer] = useState<Transfer | null>(initial);
  useEffect(() => setTransfer(initial), [initial]);
  const id = transfer?.id;
  const settled = transfer === null || transfer.status === 'done' || transfer.status === 'failed';
  useEffect(() => {
    if (id === undefined || settled) return;
    const timer = setTimeout(() => {
      void api
        .GET('/api/v2/transfers/{id}', { params: { path: { id: String(id) } } })
        .then(({ data }) => data && setTransfer(data.data));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [id, settled, transfer?.updated_at, transfer?.status, transfer?.progress.done]);
  return transfer;
}

function Progress({ transfer }: { transfer: Transfer }) {
  const { status, progress } = transfer;
  const text =
    status === 'failed'
      ? t('transfers.status.failed', { error: transfer.error ?? '' })
      : status === 'done'
        ? t('transfers.status.done')
        : status === 'running'
          ? t('transfers.status.running', { phase: progress.phase ?? '' })
          : t('transfers.status.queued');
  return (
    <div class="transfer-progress" data-transfer={transfer.id} data-status={status}>
      <label>
        {t('transfers.progress')}{' '}
        <progress
          max={Math.max(progress.total, 1)}
          value={status === 'done' ? Math.max(progress.total, 1) : progress.done}
        />{' '}
        {progress.total > 0 && `${progress.done} / ${progress.total}`}
      </label>
      <p
        class={status === 'failed' ? 'notice error' : 'help'}
        role={status === 'failed' ? 'alert' : 'status'}
      >
        {text}
      </p>
    </div>
  );
}

const counts = (bucket: Record<string, number>) =>
  Object.entries(bucket)
    .filter(([, n]) => n)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ') || t('transfers.report.nothing');

function ReportView({ report }: { report: Report }) {
  return (
    <section class="transfer-report" aria-labelledby="transfer-report-title">
      <h3 id="transfer-report-title">{t('transfers.report')}</h3>
      <p data-created>
        {report.dry_run ? t('transfers.report.dry') : t('transfers.report.done')} {counts(report.created)}
      </p>
      <p>{t('transfers.report.media', { n: report.media_files })}</p>
      {report.invites ? (
        <>
          <p data-invited>
            {t('transfers.report.invited', {
              n: report.invites.invited,
              total: report.without_password?.length ?? report.invites.invited,
            })}
          </p>
          {report.invites.failed.length > 0 && (
            <ul>
              {report.invites.failed.slice(0, 50).map((failed) => (
                <li key={failed.email}>
                  {failed.email}: {failed.reason}
                </li>
              ))}
            </ul>
          )}
        </>
      ) : (
        !report.dry_run &&
        (report.without_password?.length ?? 0) > 0 && (
          <p>{t('transfers.report.nopassword', { n: report.without_password!.length })}</p>
        )
      )}
      {Object.keys(report.merged).length > 0 && (
        <p>
          {t('transfers.report.merged')} {counts(report.merged)}
        </p>
      )}
      {report.renamed.length > 0 && (
        <>
          <p>{t('transfers.report.renamed')}</p>
          <ul>
            {report.renamed.slice(0, 50).map((rename, index) => (
              <li key={index}>
                {rename.kind}: <code>{rename.from}</code> → <code>{rename.to}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {report.skipped.length > 0 && (
        <>
          <p>{t('transfers.report.skipped')}</p>
          <ul>
            {report.skipped.slice(0, 50).map((skip, index) => (
              <li key={index}>
                {skip.kind} {String(skip.id)}: {skip.reason}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function ExportSection() {
  const me = useMe();
  const can = useAbilities();
  const [started, setStarted] = useState<Transfer | null>(null);
  const transfer = useTransfer(started);
  const start = async (body: { website_id: number } | { with_secrets: boolean }): Promise<Outcome> => {
    const { data, error } = await api.POST('/api/v2/exports', { body });
    if (error) return { error: problemText(error) };
    setStarted(data.data);
  };
  // The form is the installation's export (with or without secrets); the website's is another action.
  const form = useForm({ secrets: false }, ({ secrets }) => start({ with_secrets: secrets }));
  const { secrets } = form.values;
  const busy = transfer !== null && (transfer.status === 'queued' || transfer.status === 'running');
  return (
    <section aria-labelledby="export-title">
      <h2 id="export-title">{t('transfers.export')}</h2>
      <div class="actions">
        {can.manage_website && me.website && (
          <button
            type="button"
            class="primary"
            disabled={busy}
            onClick={() => void form.run(() => start({ website_id: me.website!.id }))}
          >
            {t('transfers.export.site', { name: me.website.name })}
          </button>
        )}
        {me.is_admin && (
          <button type="button" disabled={busy} onClick={() => void form.submit()}>
            {t('transfers.export.installation')}
          </button>
        )}
      </div>
      {me.is_admin && (
        <Checkbox checked={secrets} onChange={(on) => form.set({ secrets: on })}>
          {t('transfers.export.secrets')}
        </Checkbox>
      )}
      <Message message={noteOf(form.error)} />
      {transfer && <Progress transfer={transfer} />}
      {transfer?.status === 'done' && transfer.download_url && (
        <p>
          {t('transfers.export.ready', { size: size(transfer.bytes ?? 0) })}{' '}
          <a href={transfer.download_url} download={transfer.file_name}>
            {t('transfers.download')}
          </a>
        </p>
      )}
    </section>
  );
}

function ImportSection() {
  const me = useMe();
  const file = useRef<HTMLInputElement>(null);
  const [started, setStarted] = useState<Transfer | null>(null);
  const [dryDone, setDryDone] = useState<string | null>(null);
  const transfer = useTransfer(started);
  // The form's send is the dry run; the real import (after one) is another action of the form.
  const form = useForm<{ into: 'site' | 'own'; noMedia: boolean; invite: boolean }>(
    { into: me.website ? 'site' : 'own', noMedia: false, invite: false },
    () => send(true),
  );
  const { into, noMedia, invite } = form.values;
  const chosen = () => file.current?.files?.[0] ?? null;
  /** The file and the choices a dry run was made with: the real import needs the same. */
  const fingerprint = (picked: File) =>
    `${picked.name}:${picked.size}:${picked.lastModified}:${into}:${noMedia}`;

  useEffect(() => {
    if (transfer?.status === 'done' && transfer.dry_run && started) {
      const picked = chosen();
      if (picked) setDryDone(fingerprint(picked));
    }
  }, [transfer?.status]);

  const send = async (dryRun: boolean): Promise<Outcome> => {
    const picked = chosen();
    if (!picked) return { error: t('transfers.import.choose') };
    const query = new URLSearchParams({
      dry_run: String(dryRun),
      no_media: String(noMedia),
      invite_authors: String(invite),
      file_name: picked.name,
    });
    if (into === 'site' && me.website) query.set('website_id', String(me.website.id));
    const response = await fetch(`/api/v2/imports?${query.toString()}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/octet-stream', 'x-csrf-token': await csrfToken() },
      body: picked,
    });
    const body = (await response.json()) as { data: Transfer } & Problem;
    if (!response.ok) return { error: problemText(body) };
    if (!dryRun) setDryDone(null);
    setStarted(body.data);
  };
  const picked = chosen();
  const readyForReal = picked !== null && dryDone === fingerprint(picked);
  const busy = transfer !== null && (transfer.status === 'queued' || transfer.status === 'running');
  return (
    <section aria-labelledby="import-title">
      <h2 id="import-title">{t('transfers.import')}</h2>
      <p class="help">{t('transfers.import.help')}</p>
      <div class="inline-field">
        <label for="import-file">{t('transfers.import.file')}</label>
        <input
          id="import-file"
          ref={file}
          type="file"
          accept=".gz,.tgz,.xml,.json,application/gzip,application/xml,text/xml,application/json"
          onChange={() => setDryDone(null)}
        />
      </div>
      <fieldset>
        <legend>{t('transfers.import.into')}</legend>
        {me.website && (
          <label class="check">
            <input
              type="radio"
              name="import-into"
              checked={into === 'site'}
              onChange={() => form.set({ into: 'site' })}
            />{' '}
            {t('transfers.import.into.site', { name: me.website.name })}
          </label>
        )}
        <label class="check">
          <input
            type="radio"
            name="import-into"
            checked={into === 'own'}
            onChange={() => form.set({ into: 'own' })}
          />{' '}
          {t('transfers.import.into.own')}
        </label>
      </fieldset>
      <Checkbox checked={noMedia} onChange={(on) => form.set({ noMedia: on })}>
        {t('transfers.import.nomedia')}
      </Checkbox>
      <Checkbox checked={invite} onChange={(on) => form.set({ invite: on })}>
        {t('transfers.import.invite')}
      </Checkbox>
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void form.submit()}>
          {t('transfers.import.dryrun')}
        </button>
        <button
          type="button"
          disabled={busy || !readyForReal}
          onClick={() => void form.run(() => send(false))}
        >
          {t('transfers.import.real')}
        </button>
      </div>
      <Message message={noteOf(form.error)} />
      {transfer && <Progress transfer={transfer} />}
      {transfer?.status === 'done' && transfer.result != null && (
        <ReportView report={transfer.result as Report} />
      )}
    </section>
  );
}

export function TransfersScreen() {
  const me = useMe();
  return (
    <section class="transfers" aria-labelledby="transfers-title">
      <h1 id="transfers-title">{t('transfers.title')}</h1>
      <p class="help">{t('transfers.help')}</p>
      <ExportSection />
      {me.is_admin && <ImportSection />}
    </section>
  );
}
