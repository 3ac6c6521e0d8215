// Uploads to the media library one file per request, with XMLHttpRequest: fetch cannot report an
// upload's progress, and each file gets its own progress bar.
import type { components } from '../../clients/typescript/schema.js';
import { csrfToken } from './api.js';

type Media = components['schemas']['Media'];
/** An item as the library answers it without `?fields=` (every field present). */
export type MediaItem = Media &
  Required<Pick<Media, 'id' | 'file_name' | 'url' | 'mime_type' | 'type' | 'size' | 'created_at'>>;

export interface UploadOutcome {
  item?: MediaItem;
  /** The problem's detail or title when the server refused the file. */
  error?: string;
}

export async function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<UploadOutcome> {
  const token = await csrfToken();
  const body = new FormData();
  body.append('files', file, file.name);
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/api/v2/media');
    request.setRequestHeader('x-csrf-token', token);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      try {
        const json = JSON.parse(request.responseText) as {
          data?: MediaItem[];
          detail?: string;
          title?: string;
        };
        if (request.status === 201 && json.data?.[0]) resolve({ item: json.data[0] });
        else resolve({ error: json.detail ?? json.title ?? `HTTP ${request.status}` });
      } catch {
        resolve({ error: `HTTP ${request.status}` });
      }
    };
    request.onerror = () => resolve({ error: 'network' });
    request.send(body);
  });
}
