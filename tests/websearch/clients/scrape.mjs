// Firecrawl's JavaScript SDK against a Steward server: node scrape.mjs URL, with FIRECRAWL_API_URL
// and FIRECRAWL_API_KEY set. Prints the document as JSON, or {"error": ...} and exits 1.
import Firecrawl from "@mendable/firecrawl-js";

const client = new Firecrawl({ apiKey: process.env.FIRECRAWL_API_KEY, apiUrl: process.env.FIRECRAWL_API_URL });
try {
  const document = await client.scrape(process.argv[2], { formats: ["markdown"] });
  console.log(JSON.stringify(document));
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.message ?? error), status: error?.status ?? null }));
  process.exit(1);
}
