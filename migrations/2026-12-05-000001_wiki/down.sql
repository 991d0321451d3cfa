DROP TABLE "relay_wiki_upload_chunks";
DROP TABLE "relay_wiki_uploads";
DROP TABLE "relay_wiki_upload_batches";
DROP TABLE "wiki_documents";
DROP TABLE "wiki_categories";
