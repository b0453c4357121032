"""An institution's name, logo and accent colour on the respondent's pages."""
