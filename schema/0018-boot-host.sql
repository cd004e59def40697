-- mmci schema, migration 18: where each boot ran. A run's boots may be
-- spread over several libvirt hosts (MMCI_LIBVIRT_URIS, daemon/hosts.c)
-- when their set-ups are identical; host is the libvirt URI of the one
-- that ran this boot (NULL: a boot made before migration 18, on the
-- controller's own libvirt).
ALTER TABLE boots ADD COLUMN host TEXT;
