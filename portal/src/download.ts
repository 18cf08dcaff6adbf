// An export saved by the browser: the file fetched with the session's token (api/client.ts apiFile; a plain link
// would carry none), then handed to the browser's download under the name the server gave it.
import { apiFile, type Query } from './api/client';

export async function download(path: string, query: Query = {}): Promise<void> {
  const { blob, name } = await apiFile(path, query);
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  URL.revokeObjectURL(a.href);
}
