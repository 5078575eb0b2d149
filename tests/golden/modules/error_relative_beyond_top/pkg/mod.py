from ... import anything
