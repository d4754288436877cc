/** Build-time settings read through import.meta.env. */
interface ImportMetaEnv {
  readonly VITE_KNOWN_CLIENT_VERSION?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
