// Ambient types for Vite-handled imports (CSS side-effect imports, import.meta.env).
/// <reference types="vite/client" />
