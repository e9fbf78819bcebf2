// httpx's documentation (its Markdown, the docs directory STEWARD_DOCS names) as Docusaurus's
// classic theme lays it out: a navbar, the docs sidebar, a table of contents, an edit link, the
// previous/next pager and a footer around each page. Built by bench/documentation_sites.py.
module.exports = {
  title: "HTTPX",
  url: "https://www.python-httpx.org",
  baseUrl: "/",
  onBrokenLinks: "ignore",
  onBrokenAnchors: "ignore",
  markdown: { format: "detect", hooks: { onBrokenMarkdownLinks: "ignore" } },
  presets: [
    [
      "classic",
      {
        docs: {
          path: process.env.STEWARD_DOCS,
          routeBasePath: "/",
          editUrl: "https://github.com/encode/httpx/edit/master/docs/",
        },
        blog: false,
      },
    ],
  ],
  themeConfig: {
    navbar: {
      title: "HTTPX",
      items: [
        { type: "docSidebar", sidebarId: "defaultSidebar", label: "Docs" },
        { href: "https://github.com/encode/httpx", label: "GitHub", position: "right" },
      ],
    },
    footer: { style: "dark", copyright: "Copyright © Encode OSS Ltd." },
  },
};
