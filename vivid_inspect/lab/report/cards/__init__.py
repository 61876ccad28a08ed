"""The report's cards: the cards a researcher acts on: the judge card, the audits' cards, the summary, and the human files they rest on."""
